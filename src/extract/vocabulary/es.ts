// Owns the Spanish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Spanish (es). */
export const es: Vocabulary = {
  verify: [
    'verificar', 'verifica', 'verifique', 'confirmar', 'confirma', 'confirme', 'activar', 'activa', 'validar',
    'completar registro',
  ],
  reset: ['restablecer', 'restablece', 'nueva contraseña', 'recuperar'],
  login: ['iniciar sesión', 'inicia sesión', 'acceder', 'accede', 'entrar'],
  weakAction: ['continuar', 'aquí'],
  negativeAction: ['cancelar', 'rechazar', 'no fui yo'],
  notMe: ['si no fuiste tú', 'si no has sido tú'],
  unsubscribe: ['darse de baja', 'dar de baja', 'date de baja', 'baja', 'cancelar suscripción', 'anular suscripción'],
  preferences: ['preferencias'],
  privacy: ['privacidad'],
  terms: ['términos', 'aviso legal', 'condiciones'],
  help: ['ayuda', 'centro de ayuda', 'contáctanos', 'contacto', 'soporte'],
  viewInBrowser: ['ver en el navegador', 'ver en línea', 'versión web'],
  social: ['síguenos'],
  code: [
    'código', 'códigos', 'clave de verificación', 'clave de seguridad', 'código de verificación',
    'código de confirmación', 'código de seguridad',
  ],
  fakeCode: ['código promocional', 'código de descuento', 'código postal', 'código de rastreo', 'cupón'],
  enter: ['introduce', 'introduzca', 'ingresa', 'ingrese'],
  bookingCode: ['código de confirmación', 'código de reserva'],
  booking: ['reserva', 'vuelo', 'viaje'],
  nonCodeLabel: [
    'pedido', 'número', 'factura', 'reserva', 'teléfono', 'llámanos', 'llame', 'cuenta', 'cliente', 'importe', 'precio',
    'envío', 'seguimiento', 'boleto',
  ],
  meeting: ['reunión'],
  promo: ['descuento'],
  address: ['calle', 'avenida', 'plaza', 'paseo'],
  unitAfter: ['minutos', 'horas', 'segundos', 'días'],
  months: [
    'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre',
    'diciembre',
  ],
  confirmationNoun: ['confirmación'],
  account: ['cuenta'],
  copula: ['es', 'era'],
  disclaimer: [
    'ignora', 'ignore', 'ignorar', 'no es necesario hacer nada', 'no tienes que hacer nada', 'permanecerá',
  ],
  pointer: [
    'enlace de abajo', 'siguiente enlace', 'enlace a continuación', 'botón de abajo',
  ],
  advice: ['te recomendamos', 'le recomendamos', 'recomendamos'],
};
